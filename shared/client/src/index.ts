export {
  SiftClient,
  type CallOptions,
  type ClassifyOutcome,
  type SiftClientOptions,
  type VerifyOutcome,
} from "./client.js";
export { SiftError, type SiftErrorKind } from "./errors.js";
export { SPEC_OUTAGE_POLICY, STRICT_OUTAGE_POLICY, type OutagePolicy } from "./policy.js";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.js";
export * from "./types.js";
export {
  formCheck,
  siftForm,
  SOLUTION_FIELDS,
  type FormCheck,
  type FormCheckOptions,
  type FormReason,
  type FormSource,
  type SiftRequest,
} from "./form.js";
export {
  ManagementClient,
  ManagementError,
  type BatchOperation,
  type Configuration,
  type ConfigurationInput,
  type ManagementClientOptions,
  type ManagementErrorCode,
  type Page,
  type Workspace,
  type WorkspaceChanges,
  type WorkspaceFilter,
  type WorkspaceInput,
} from "./management.js";
