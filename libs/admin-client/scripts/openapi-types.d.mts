// Types of openapi-types.mjs for the TypeScript tests that import it.
export declare const GENERATED: { document: string; types: string; enums: string };
export declare function openApiTypes(doc: unknown): Promise<string>;
export declare function openApiEnums(doc: unknown): string;
export declare function openApiDocumentText(doc: unknown): string;
