/**
 * The one pattern for an email address, shared by card checkout (a buyer's `buyer.email`) and the
 * operator's contact address the storefront's pages publish (operator.ts).
 */

/** something@domain.tld, no spaces, quotes, brackets or separators. */
export const EMAIL = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:]+$/;

/** RFC 5321's path limit. */
export const MAX_EMAIL = 254;

/** Whether `value` (already trimmed) is an email address by the pattern above. */
export const isEmail = (value: string): boolean => value.length <= MAX_EMAIL && EMAIL.test(value);
