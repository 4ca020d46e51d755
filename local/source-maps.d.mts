/** Types of local/source-maps.mjs (plain JavaScript, so that the launcher runs it without a build). */

/** Rewrites a source map keeping only the mappings into this project's sources; its size in bytes before and after. */
export declare function keepProjectMappings(mapFile: string): { before: number; after: number };
