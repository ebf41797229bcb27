// Types of openapi-types.mjs for the TypeScript tests that import it.
export declare function openApiTypes(doc: unknown): Promise<string>;
