import { customAlphabet } from 'nanoid';

// Lock ids: 8 characters of [0-9a-z] (CONTRACT.md), short enough to type, wide enough not to collide.
export const newId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 8);

export const ID_PATTERN = /^[0-9a-z]{8}$/;
