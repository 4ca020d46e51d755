/** The catalog domain's error codes (docs/ARCHITECTURE.md, "Choices the spec left open"). */
import { errorCatalog, type AppError } from '../platform/errors';

export const CATALOG_ERRORS = errorCatalog({
  /** The spec's 400 for a request that names no skill. */
  SKILL_REQUIRED: {
    status: 400,
    message: 'A skill id is required in the query parameter `skill`.',
    tip: 'Supply a catalog id, e.g. ?skill=agent-x402-first-buy. GET /catalog.json lists them all.',
  },
});

/** 400 SKILL_REQUIRED, saying where the id was expected. */
export const skillRequired = (where = 'query parameter `skill`'): AppError =>
  CATALOG_ERRORS.SKILL_REQUIRED({ message: `A skill id is required in the ${where}.` });
