// The API-version behaviours container create asks about. src/container may not import src/api, so
// the names are spelled here; the route passes its ApiVersion, whose has() takes a superset of them.
export type CreateBehaviourName =
  | 'defaultIpcModeShareable'
  | 'kernelMemoryTcpField'
  | 'bindNonRecursiveOption'
  | 'capabilitiesField'
  | 'envWithoutEqualsRemovesVariable'
  | 'healthcheckMinimumDuration'
  | 'cgroupnsMode';

export interface CreateBehaviours {
  has(name: CreateBehaviourName): boolean;
}
