import { solveFromService } from "@sift/challenge";
import { post, type Reply } from "@sift/testkit";

export const verify = (gatewayUrl: string, secretKey: string, solution: string): Promise<Reply> =>
  post(`${gatewayUrl}/verify`, { secretKey, solution });

export const solve = async (gatewayUrl: string, siteKey: string): Promise<string> =>
  (await solveFromService({ siteKey, baseUrl: gatewayUrl })).solution;

/** Rewrites one part of a solution (0 version, 1 challenge, 2 signature, 3 proof). */
export const withPart = (solution: string, index: number, change: (part: string) => string): string =>
  solution
    .split(".")
    .map((part, i) => (i === index ? change(part) : part))
    .join(".");
