// SQLite's header field for "which program's file is this" (PRAGMA application_id): ic marks every
// database it creates, so that it can refuse to touch a SQLite file that belongs to something else.
// 0x69632e64 spells "ic.d".
export const IC_APPLICATION_ID = 0x69632e64;
