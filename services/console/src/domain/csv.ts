/**
 * CSV as spreadsheets read and write it (RFC 4180): cells separated by commas, a cell quoted
 * when it holds a comma, a quote or a line break, quotes doubled inside. Written cells are also
 * defused against formula injection: a cell starting with = + - @ tab or CR would be run as a
 * formula by Excel, LibreOffice or Sheets, so it gets a leading single quote (OWASP's advice),
 * which those programs show as text and `undefuse` takes off again on import.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/** One cell, defused and quoted as needed. */
export const csvCell = (value: string): string => {
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** One record, CRLF-terminated as RFC 4180 has it. */
export const csvRecord = (cells: readonly string[]): string => `${cells.map(csvCell).join(",")}\r\n`;

/** A cell read back: the quote `csvCell` put before a formula-like value comes off. */
export const undefuse = (cell: string): string => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

export interface CsvRow {
  /** The line the record starts on (1-based), for error messages. */
  line: number;
  cells: string[];
}

export type CsvParse = { ok: true; rows: CsvRow[] } | { ok: false; line: number; problem: string };

/**
 * The records of a CSV text, blank lines skipped; a byte-order mark, CRLF or LF line ends and
 * quoted line breaks are fine. A quote that is never closed, or text right after a closing quote,
 * makes the whole text malformed (the line says where).
 */
export const parseCsv = (input: string): CsvParse => {
  const text = input.startsWith("\uFEFF") ? input.slice(1) : input;
  const rows: CsvRow[] = [];
  let cells: string[] = [];
  let cell = "";
  let line = 1;
  let start = 1;
  let i = 0;
  const endRecord = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== "") rows.push({ line: start, cells });
    cells = [];
    cell = "";
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' && cell === "") {
      const opened = line;
      i++;
      for (;;) {
        if (i >= text.length) return { ok: false, line: opened, problem: "a quoted cell is never closed" };
        const q = text[i]!;
        if (q === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (q === "\n") line++;
        cell += q;
        i++;
      }
      const next = text[i];
      if (next !== undefined && next !== "," && next !== "\n" && next !== "\r")
        return { ok: false, line, problem: "text after a closing quote" };
      continue;
    }
    if (c === ",") {
      cells.push(cell);
      cell = "";
      i++;
      continue;
    }
    if (c === "\r" || c === "\n") {
      endRecord();
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
      line++;
      start = line;
      continue;
    }
    cell += c;
    i++;
  }
  if (cell !== "" || cells.length > 0) endRecord();
  return { ok: true, rows };
};
