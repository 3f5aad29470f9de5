import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../../errors.js';
import { FilterArgs } from '../../lib/filters.js';
import { selectServices, selectTasks, type TaskFilterLookups } from './service-filters.js';
import type { DesiredState, ServiceRecord, TaskRecord } from './service-records.js';
import type { ServiceMode } from './service-types.js';

function service(id: string, name: string, mode: ServiceMode, labels: Record<string, string> = {}): ServiceRecord {
  return {
    id,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    spec: { Name: name, Labels: labels, TaskTemplate: { ContainerSpec: { Image: 'busybox', Isolation: 'default' }, ForceUpdate: 0, Runtime: 'container' }, Mode: mode },
    endpoint: { ports: [], virtualIps: [] },
  };
}

const web = service('b2web', 'web', { Replicated: { Replicas: 2 } }, { tier: 'front', a: 'b' });
const agent = service('a1agent', 'agent', { Global: {} }, { tier: 'back' });
const job = service('c3job', 'webjob', { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } });
const services = [web, agent, job];

function filters(json: object): FilterArgs {
  return FilterArgs.fromJson(JSON.stringify(json));
}

function names(list: ServiceRecord[]): string[] {
  return list.map((s) => s.spec.Name);
}

describe('selectServices', () => {
  it('lists every service sorted by ID', () => {
    assert.deepEqual(names(selectServices(services, FilterArgs.empty())), ['agent', 'web', 'webjob']);
  });

  it('matches name and id as case-sensitive prefixes', () => {
    assert.deepEqual(names(selectServices(services, filters({ name: ['web'] }))), ['web', 'webjob']);
    assert.deepEqual(names(selectServices(services, filters({ name: ['WEB'] }))), []);
    assert.deepEqual(names(selectServices(services, filters({ id: ['a1', 'c'] }))), ['agent', 'webjob']);
  });

  it('matches a label by key, k= for any value, or k=v', () => {
    assert.deepEqual(names(selectServices(services, filters({ label: ['tier'] }))), ['agent', 'web']);
    assert.deepEqual(names(selectServices(services, filters({ label: ['tier='] }))), ['agent', 'web']);
    assert.deepEqual(names(selectServices(services, filters({ label: ['tier=front', 'a=b'] }))), ['web']);
    assert.deepEqual(names(selectServices(services, filters({ label: ['tier=front', 'a=c'] }))), []);
  });

  it('matches a mode exactly; an unknown one matches nothing, without an error', () => {
    assert.deepEqual(names(selectServices(services, filters({ mode: ['global'] }))), ['agent']);
    assert.deepEqual(names(selectServices(services, filters({ mode: ['replicated', 'replicated-job'] }))), ['web', 'webjob']);
    assert.deepEqual(names(selectServices(services, filters({ mode: ['bogus'] }))), []);
  });

  it('has container tasks only: another runtime matches nothing', () => {
    assert.deepEqual(names(selectServices(services, filters({ runtime: ['plugin'] }))), []);
    assert.deepEqual(names(selectServices(services, filters({ runtime: ['container'] }))), ['agent', 'web', 'webjob']);
  });

  it("refuses another key in dockerd's words", () => {
    assert.throws(
      () => selectServices(services, filters({ foo: ['x'] })),
      (err: unknown) => err instanceof EngineError && err.kind === 'invalidParameter' && err.message === "Invalid filter 'foo'",
    );
  });
});

/** `outdated`: made from an earlier spec than its service's */
function task(id: string, owner: ServiceRecord, slot: number, nodeId: string, desiredState: DesiredState, outdated = false): TaskRecord {
  return {
    id,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    serviceId: owner.id,
    serviceAnnotations: { name: owner.spec.Name, labels: owner.spec.Labels },
    slot,
    nodeId,
    spec: outdated ? { ...owner.spec.TaskTemplate, ForceUpdate: 1 } : owner.spec.TaskTemplate,
    status: { timestamp: '2026-01-01T00:00:00Z', state: 'running', message: 'started' },
    desiredState,
  };
}

const tasks = [
  task('t3', web, 1, 'node1', 'running'),
  task('t1', web, 1, 'node1', 'shutdown', true),
  task('t2', web, 2, 'node2', 'running'),
  task('u1', agent, 0, 'node1', 'running'),
  task('u2', agent, 0, 'node2', 'remove'),
];

const lookups: TaskFilterLookups = {
  async serviceId(input) {
    const found = services.find((s) => s.id === input || s.spec.Name === input) ?? services.find((s) => s.id.startsWith(input));
    if (found === undefined) throw new EngineError('notFound', `service ${input} not found`);
    return found.id;
  },
  async nodeId(input) {
    if (!['node1', 'node2'].includes(input)) throw new EngineError('notFound', `node ${input} not found`);
    return input;
  },
  services: new Map(services.map((s) => [s.id, s])),
};

async function ids(json: object): Promise<string[]> {
  return (await selectTasks(tasks, filters(json), lookups)).map((t) => t.id);
}

describe('selectTasks', () => {
  it('lists every task sorted by ID', async () => {
    assert.deepEqual(await ids({}), ['t1', 't2', 't3', 'u1', 'u2']);
  });

  it('matches the name <service>.<slot>.<id>, or <service>.<node>.<id> for a global task, as a prefix', async () => {
    assert.deepEqual(await ids({ name: ['web.1'] }), ['t1', 't3']);
    assert.deepEqual(await ids({ name: ['web.2.t2'] }), ['t2']);
    assert.deepEqual(await ids({ name: ['agent.node2'] }), ['u2']);
    assert.deepEqual(await ids({ name: ['web'] }), ['t1', 't2', 't3']);
  });

  it('matches a service or node by what the lookups resolve', async () => {
    assert.deepEqual(await ids({ service: ['agent'] }), ['u1', 'u2']);
    assert.deepEqual(await ids({ service: ['b2'] }), ['t1', 't2', 't3']);
    assert.deepEqual(await ids({ node: ['node2'], service: ['web'] }), ['t2']);
  });

  it("matches the service's labels", async () => {
    assert.deepEqual(await ids({ label: ['tier=back'] }), ['u1', 'u2']);
  });

  it('matches desired states without case', async () => {
    assert.deepEqual(await ids({ 'desired-state': ['Running'] }), ['t2', 't3', 'u1']);
    assert.deepEqual(await ids({ 'desired-state': ['shutdown', 'remove', ''] }), ['t1', 'u2']);
  });

  it('keeps, for _up-to-date, the tasks made from their service’s current spec', async () => {
    assert.deepEqual(await ids({ '_up-to-date': ['false'], service: ['web'] }), ['t2', 't3']);
  });

  it("refuses in dockerd's order: the key (400), then the service or node (404), then the desired state (500)", async () => {
    const refused = (kind: EngineError['kind'], message: string) => (err: unknown) => err instanceof EngineError && err.kind === kind && err.message === message;
    await assert.rejects(ids({ 'desired-state': ['bogus'], foo: ['x'] }), refused('invalidParameter', "Invalid filter 'foo'"));
    await assert.rejects(ids({ 'desired-state': ['bogus'], service: ['nosuch'] }), refused('notFound', 'service nosuch not found'));
    await assert.rejects(ids({ 'desired-state': ['bogus'], node: ['nosuch'] }), refused('notFound', 'node nosuch not found'));
    await assert.rejects(ids({ 'desired-state': ['running', 'bogus'] }), refused('system', "Invalid desired-state filter: 'bogus'"));
  });
});
