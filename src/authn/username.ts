/** A username, whoever chooses it (an admin, a person registering): 1 to 255 letters, digits or `. _ @ + -`. */
export const USERNAME = /^[\p{L}\p{N}._@+-]{1,255}$/u;
