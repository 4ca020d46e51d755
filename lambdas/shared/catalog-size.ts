/** The spec's catalog size: 250 public skills. The build refuses another count; /api/ready checks it. */
export const CATALOG_SIZE_EXPECTED = 250;
