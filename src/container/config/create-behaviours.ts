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

/**
 * What no client asks for (a build's step, a swarm's task) is created as the current API version
 * (1.41) creates one: api-version.ts's table at 1.41, for the behaviours create asks about.
 */
export const CURRENT_API_BEHAVIOURS: CreateBehaviours = {
  has: (name) => ['kernelMemoryTcpField', 'bindNonRecursiveOption', 'envWithoutEqualsRemovesVariable', 'healthcheckMinimumDuration', 'cgroupnsMode'].includes(name),
};
