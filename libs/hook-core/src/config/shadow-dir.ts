// Where the shadow layer sits (issue 27): a directory beside the enforced requirements.toml, holding the shadow
// version's requirements.toml, its managed files and the release file. Shared by the engine (which runs it), the
// bundle content rules (which confine shadow bundles to it and keep managed bundles out of it) and the agent.

/** The shadow layer's directory name, beside the enforced requirements.toml. */
export const SHADOW_DIR_NAME = 'shadow';
/** The shadow release's identity file inside the shadow directory (written by the agent). */
export const SHADOW_RELEASE_FILE = 'shadow-release.json';
/** The directory, inside the shadow directory, that a shadow version's managed files are delivered to. */
export const SHADOW_MANAGED_NAME = 'managed';
