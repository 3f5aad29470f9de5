// What the containers tell the daemon's metrics (src/metrics/ implements it).

/** What the containers tell the daemon's metrics: how long each action took, and each health check run. */
export interface ContainerMetrics {
  /** Starts timing an action; the function returned is called when it succeeded. */
  timeContainerAction(action: 'changes' | 'commit' | 'create' | 'delete' | 'start'): () => void;
  healthCheck(failed: boolean): void;
}
