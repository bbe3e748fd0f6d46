/** The identity the gateway signs: built where its schema lives, so the benchmarks sign the same. */
export { identityFor, resolvedKey } from "@sift/contracts";
