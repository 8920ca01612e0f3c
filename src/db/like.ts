/** `text` with the LIKE wildcards (`%`, `_`) and the escape character taken literally (Postgres' default escape `\`). */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** A LIKE pattern matching any value that contains `text`. */
export const containsPattern = (text: string): string => `%${escapeLike(text)}%`;
