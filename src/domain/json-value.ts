/** A value that survives JSON unchanged: what parameter values, events and replies are made of. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
