/** Types of local/source-maps.mjs (plain JavaScript, so that the launcher runs it without a build). */

/** Rewrites a source map keeping only the mappings into this project's sources, or drops it (and its chunk's comment) when none is left. */
export declare function keepProjectMappings(mapFile: string): { before: number; after: number; dropped: boolean };
