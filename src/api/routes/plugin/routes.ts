// The Plugin operations, before managed plugins (`docker plugin install`) exist in berth: the list
// is empty, as dockerd's is with legacy plugins only (those are found by the volume area, not
// listed); a named plugin is not found, in dockerd's words; installing, building and upgrading
// answer 501.
import { notFound, notImplemented } from '../../../errors.js';
import type { Handler, Route } from '../../router.js';

const notInstalled: Handler = (ctx) => {
  throw notFound(`plugin "${ctx.params.name}" not found`);
};

const notSupported: Handler = () => {
  throw notImplemented('managed plugins are not supported by berth yet');
};

export function pluginRoutes(): Route[] {
  return [
    { operationId: 'PluginList', method: 'GET', path: '/plugins', handle: (ctx) => ctx.json([]) },
    { operationId: 'GetPluginPrivileges', method: 'GET', path: '/plugins/privileges', handle: notSupported },
    { operationId: 'PluginPull', method: 'POST', path: '/plugins/pull', handle: notSupported },
    { operationId: 'PluginCreate', method: 'POST', path: '/plugins/create', handle: notSupported },
    { operationId: 'PluginInspect', method: 'GET', path: '/plugins/{name}/json', handle: notInstalled },
    { operationId: 'PluginDelete', method: 'DELETE', path: '/plugins/{name}', handle: notInstalled },
    { operationId: 'PluginEnable', method: 'POST', path: '/plugins/{name}/enable', handle: notInstalled },
    { operationId: 'PluginDisable', method: 'POST', path: '/plugins/{name}/disable', handle: notInstalled },
    { operationId: 'PluginUpgrade', method: 'POST', path: '/plugins/{name}/upgrade', handle: notInstalled },
    { operationId: 'PluginPush', method: 'POST', path: '/plugins/{name}/push', handle: notInstalled },
    { operationId: 'PluginSet', method: 'POST', path: '/plugins/{name}/set', handle: notInstalled },
  ];
}
