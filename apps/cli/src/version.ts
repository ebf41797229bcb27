// The CLI's version (reported by --version and in the User-Agent header).
export const CLI_VERSION = '0.1.0';
