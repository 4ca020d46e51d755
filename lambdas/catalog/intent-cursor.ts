/** Thrown by an intent store for a list cursor it did not issue; the route answers 400 naming `cursor`. */
export class InvalidCursorError extends Error {}
