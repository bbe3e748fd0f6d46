import { randomUUID } from "node:crypto";

/** A caller's own id is kept when it is short and plain, so it can be logged and forwarded safely. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestIdFrom = (header: string | string[] | undefined): string =>
  typeof header === "string" && SAFE_ID.test(header) ? header : randomUUID();
