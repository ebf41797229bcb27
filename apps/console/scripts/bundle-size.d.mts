// Types of bundle-size.mjs for the TypeScript tests that import it.
export declare const DIST: string;
export declare const FIRST_SCREEN_BUDGET: number;
export declare function measure(dist?: string): {
  entry: number;
  overview: number;
  total: number;
  files: string[];
  allJs: number;
};
