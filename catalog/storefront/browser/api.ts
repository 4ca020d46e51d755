/**
 * The storefront reads the same API the agents use, from the same origin. Every answer is JSON;
 * a failure is the spec's body ({ok:false, error_code, message, retry, tip}), shown to the person as is.
 */

export interface Failure {
  ok: false;
  error_code: string;
  message: string;
  retry: boolean;
  tip?: string;
}

export type Answer<T> = { status: number; body: T | Failure; headers: Headers };

/** Thrown when the service cannot be reached or answers something that is not JSON. */
export class Unreachable extends Error {}

export async function call<T>(path: string, init?: RequestInit): Promise<Answer<T>> {
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new Unreachable('The shop did not answer. Check your connection and try again.');
  }
  try {
    return { status: res.status, body: (await res.json()) as T | Failure, headers: res.headers };
  } catch {
    throw new Unreachable(`The shop answered ${res.status} without a readable body. Try again in a moment.`);
  }
}

export const isFailure = (b: unknown): b is Failure => typeof b === 'object' && b !== null && (b as { ok?: unknown }).ok === false;

/** A failure as one sentence for a person: the service's message and its tip. */
export const explain = (f: Failure): string => `${f.message}${f.tip ? ` ${f.tip}` : ''}`;
