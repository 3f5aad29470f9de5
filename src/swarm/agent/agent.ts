// A worker's link to its swarm: one session with a manager, kept by a heartbeat each period, moved
// to the next manager it knows when that one stops answering or cannot serve (swarmkit's agent).
// Each answer brings the managers' list, which the node keeps for its next restart, and the role
// the swarm gives it. Its certificate is renewed once half its life has passed.
import type { Logger } from 'pino';
import { newCertificateRequest, type NodeRole } from '../ca/swarm-ca.js';
import { renewalDue } from '../ca/renewal.js';
import type { NodeDescription } from '../cluster/records.js';
import type { LocalNodeState, NodeCertificates } from '../local-node.js';
import { callManager } from '../transport/cluster-client.js';
import { CLUSTER_PATHS, type HeartbeatResponse, type RenewResponse } from '../transport/cluster-protocol.js';

export interface AgentDeps {
  state: LocalNodeState;
  certs: NodeCertificates;
  describe: () => Promise<NodeDescription>;
  workDir: string;
  log: Logger;
  /** the managers' list changed, or the certificate was renewed: what the node keeps */
  save: (state: LocalNodeState, certs: NodeCertificates) => Promise<void>;
  /** the swarm gives the node another role, or removed it */
  onRoleChange: (role: NodeRole | 'removed') => void;
}

export class Agent {
  private timer: NodeJS.Timeout | undefined;
  private current = 0;
  private periodMs = 5000;
  private beating: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: AgentDeps) {}

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.beating;
  }

  /** A call to the node's manager, the next one it knows when that one fails (as its heartbeats fail over). */
  async call<T>(path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    const managers = this.deps.state.managers;
    let last: unknown = new Error('the node knows no manager');
    for (let tried = 0; tried < managers.length; tried++) {
      const manager = managers[this.current % managers.length]!;
      try {
        return await callManager<T>(manager.addr, path, body, this.deps.certs, timeoutMs, signal);
      } catch (err) {
        if (signal?.aborted === true) throw err;
        last = err;
        this.current++;
      }
    }
    throw last;
  }

  /** Tells a manager the node leaves (best effort: a manager gone away marks it down anyway). */
  async leave(): Promise<void> {
    await this.stop();
    for (const m of this.deps.state.managers) {
      try {
        await callManager(m.addr, CLUSTER_PATHS.leave, {}, this.deps.certs, 3000);
        return;
      } catch {
        // the next manager
      }
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.beating = this.beat().finally(() => {
        this.beating = undefined;
        this.schedule(this.periodMs);
      });
    }, delayMs);
  }

  private async beat(): Promise<void> {
    const { state, certs } = this.deps;
    const managers = state.managers;
    for (let tried = 0; tried < Math.max(1, managers.length); tried++) {
      const manager = managers[this.current % Math.max(1, managers.length)];
      if (manager === undefined) return;
      let answer: HeartbeatResponse;
      try {
        answer = await callManager<HeartbeatResponse>(manager.addr, CLUSTER_PATHS.heartbeat, { advertiseAddr: state.advertiseAddr, description: await this.deps.describe() }, certs, this.periodMs);
      } catch (err) {
        // unreachable, or reached but unable to serve (a manager cut off from the others answers
        // that the swarm has no leader): the next manager
        this.deps.log.debug({ err, manager: manager.addr }, 'swarm: heartbeat failed');
        this.current++;
        continue;
      }
      this.periodMs = answer.heartbeatPeriodMs;
      if (answer.removed) return this.deps.onRoleChange('removed');
      await this.keep(answer);
      if (answer.role !== state.role) this.deps.onRoleChange(answer.role);
      else await this.renewIfDue(manager.addr).catch((err: unknown) => this.deps.log.warn({ err }, 'swarm: certificate renewal failed'));
      return;
    }
  }

  private async keep(answer: HeartbeatResponse): Promise<void> {
    const known = JSON.stringify(this.deps.state.managers);
    if (answer.managers.length === 0 || JSON.stringify(answer.managers) === known) return;
    this.deps.state.managers = answer.managers;
    this.current = 0;
    await this.deps.save(this.deps.state, this.deps.certs);
  }

  private async renewIfDue(addr: string): Promise<void> {
    if (!renewalDue(this.deps.certs.certPem)) return;
    const { keyPem, csrPem } = await newCertificateRequest(this.deps.workDir);
    const renewed = await callManager<RenewResponse>(addr, CLUSTER_PATHS.renew, { csrPem }, this.deps.certs);
    this.deps.certs = { ...this.deps.certs, certPem: renewed.certPem, keyPem };
    await this.deps.save(this.deps.state, this.deps.certs);
    this.deps.log.info('swarm: node certificate renewed');
  }
}
