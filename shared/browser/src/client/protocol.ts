export type WorkerRequest = { challenge: string; signature: string };
export type WorkerReply = { ok: true; solution: string } | { ok: false; message: string };
