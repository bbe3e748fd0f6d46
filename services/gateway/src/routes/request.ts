import type { Request } from "express";

/** The body express.raw() read (bounded by the body limit); empty when none was sent. */
export const rawBody = (req: Request): Buffer => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));

/** The client address as express sees it (honours the configured number of trusted proxies). */
export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? "unknown";
