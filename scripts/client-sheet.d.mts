/** The one source of the spreadsheet rules (src/domain/people-sheet.ts). */
export const SHEET_SOURCE: string;
/** The client package's copy, written from the source by the build. */
export const SHEET_COPY: string;
/** Writes the client's copy of the spreadsheet rules when it differs from the source; true when it wrote. */
export function writeClientSheet(target?: string): boolean;
