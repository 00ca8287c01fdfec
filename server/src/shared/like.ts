/** A LIKE pattern (with `escape '\'`) matching text that contains `text`: its `%`, `_` and `\` match literally. */
export const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
