// Credentials are used for their request only: after a login, a push and a pull with a
// distinctive password (berthd at debug level), the password, its base64 and the base64 of
// user:password appear nowhere in berthd's log, its events, or any file under its data and exec
// roots.
import assert from 'node:assert/strict';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Registry } from '../../helpers/registry.js';
import { loadImage, threeLayerImage } from '../../helpers/registry-images.js';
import { eventsSince, nowSeconds, stage, unstage, type Stage } from './setup.js';

const USER = 'leaktester';
const PASSWORD = 'Zq9-distinctive-L3ak-canary-7f3e';

function filesUnder(dir: string): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const p = path.join(dir, name);
    const st = lstatSync(p);
    if (st.isDirectory()) out = out.concat(filesUnder(p));
    else if (st.isFile()) out.push(p);
  }
  return out;
}

describe('credentials never kept', () => {
  let s: Stage | undefined;
  let reg: Registry;
  let since: number;
  before(async () => {
    since = nowSeconds();
    s = await stage({ args: ['--debug'] });
    reg = await s.registry({ auth: 'htpasswd', users: { [USER]: PASSWORD } });
    await loadImage(s.d, await threeLayerImage('leak'), `${reg.host}/leak/app:v1`);
  });
  after(async () => {
    await unstage(s);
  });

  test('login, push, pull and a failed login: the password is in no log, event or file', async () => {
    const d = s!.d;
    const login = await d.docker(['login', reg.host, '-u', USER, '--password-stdin'], { input: `${PASSWORD}\n` });
    assert.equal(login.code, 0, login.stderr);
    const push = await d.docker(['push', `${reg.host}/leak/app:v1`], { timeoutMs: 120_000 });
    assert.equal(push.code, 0, push.stderr + push.stdout);
    assert.equal((await d.docker(['rmi', `${reg.host}/leak/app:v1`])).code, 0);
    const pull = await d.docker(['pull', `${reg.host}/leak/app:v1`], { timeoutMs: 120_000 });
    assert.equal(pull.code, 0, pull.stderr + pull.stdout);
    // a wrong password that contains the right one: its error must not echo it either
    const wrong = await d.request('POST', '/auth', { json: { username: USER, password: `${PASSWORD}-wrong`, serveraddress: reg.host } });
    assert.equal(wrong.status, 401);
    assert.ok(!wrong.body.includes(PASSWORD), wrong.body);

    const needles = [
      PASSWORD,
      Buffer.from(PASSWORD).toString('base64').replace(/=+$/, ''),
      Buffer.from(`${USER}:${PASSWORD}`).toString('base64').replace(/=+$/, ''),
      Buffer.from(PASSWORD).toString('hex'),
    ];
    const { raw } = await eventsSince(d, since);
    const allEvents = (await d.request('GET', `/events?since=${since}&until=${nowSeconds() + 1}`, { timeoutMs: 15000 })).body;
    for (const needle of needles) {
      assert.ok(!d.log.includes(needle), `berthd's log has ${needle}`);
      assert.ok(!raw.includes(needle) && !allEvents.includes(needle), `the events have ${needle}`);
    }
    assert.ok(d.log.length > 0, 'the log was captured');
    const roots = [d.dataRoot, path.join(d.dir, 'exec')];
    const files = roots.flatMap(filesUnder);
    assert.ok(files.length > 0);
    for (const file of files) {
      const content = readFileSync(file);
      for (const needle of needles) assert.equal(content.indexOf(needle), -1, `${file} has ${needle}`);
    }
  });
});
