/**
 * Whether a person must have a second factor on to open a workspace (issue 41): when its owners
 * ask it of every member, and, for operators, everywhere when the deployment says so
 * (SIFT_CONSOLE_OPERATOR_SECOND_FACTOR=required).
 */
export const secondFactorDemanded = (who: {
  operator: boolean;
  workspaceRequires: boolean;
  operatorsRequired: boolean;
}): boolean => who.workspaceRequires || (who.operator && who.operatorsRequired);
