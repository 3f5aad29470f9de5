import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PageNotFoundError } from '../errors.js';
import { Router, type Route } from './router.js';

const noop = () => undefined;
const route = (operationId: string, method: Route['method'], path: string): Route => ({ operationId, method, path, handle: noop });

describe('Router', () => {
  const router = new Router([
    route('ImageInspect', 'GET', '/images/{name}/json'),
    route('ImageList', 'GET', '/images/json'),
    route('ContainerArchiveInfo', 'HEAD', '/containers/{id}/archive'),
    route('ImageTag', 'POST', '/images/{name}/tag'),
  ]);

  it('prefers a literal path over a parameter', () => {
    assert.equal(router.match('GET', '/images/json').route.operationId, 'ImageList');
  });
  it('lets a parameter span slashes, as image names do', () => {
    const m = router.match('POST', '/images/registry:5000/library/busybox/tag');
    assert.equal(m.route.operationId, 'ImageTag');
    assert.deepEqual(m.params, { name: 'registry:5000/library/busybox' });
  });
  it('decodes parameters', () => {
    assert.deepEqual(router.match('GET', '/images/a%2Fb/json').params, { name: 'a/b' });
  });
  it('answers page not found for an unknown path or method', () => {
    assert.throws(() => router.match('GET', '/nope'), PageNotFoundError);
    assert.throws(() => router.match('DELETE', '/images/json'), PageNotFoundError);
    assert.throws(() => router.match('GET', '/containers/x/archive'), PageNotFoundError);
  });
  it('lists the operations it serves', () => {
    assert.deepEqual([...router.operations].sort(), ['ContainerArchiveInfo', 'ImageInspect', 'ImageList', 'ImageTag']);
  });
  it('refuses a route registered twice', () => {
    assert.throws(() => new Router([route('A', 'GET', '/x'), route('B', 'GET', '/x')]), /registered twice/);
  });
});
