// The route table: every operation keyed by its operationId from the spec, mounted once and
// served both with a /vX.Y prefix and without one (the prefix is taken off before routing).
import { PageNotFoundError } from '../errors.js';
import type { RequestContext } from './context.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

export type Handler = (ctx: RequestContext) => Promise<void> | void;

export interface Route {
  /** The spec's operationId, e.g. SystemPing. */
  operationId: string;
  method: HttpMethod;
  /** The spec's path template, e.g. /containers/{id}/json. */
  path: string;
  handle: Handler;
  /** Takes the connection for a raw stream: Node hands its plain requests over as upgrades too (hijack.ts). */
  hijacks?: boolean;
}

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  paramNames: string[];
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

export class Router {
  private readonly byMethod = new Map<HttpMethod, CompiledRoute[]>();
  private readonly operationIds = new Set<string>();

  constructor(routes: Iterable<Route>) {
    for (const route of routes) this.add(route);
  }

  /** The operationIds served, for the tests that hold docs/COMPATIBILITY.md to the code. */
  get operations(): ReadonlySet<string> {
    return this.operationIds;
  }

  match(method: string, path: string): RouteMatch {
    const found = this.find(method, path);
    if (found === undefined) throw new PageNotFoundError();
    return found;
  }

  /** Whether the route of a request takes its connection; false for none. */
  hijacks(method: string, path: string): boolean {
    return this.find(method, path)?.route.hijacks === true;
  }

  private find(method: string, path: string): RouteMatch | undefined {
    for (const c of this.byMethod.get(method as HttpMethod) ?? []) {
      const m = c.pattern.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      c.paramNames.forEach((name, i) => {
        params[name] = safeDecode(m[i + 1]);
      });
      return { route: c.route, params };
    }
    return undefined;
  }

  private add(route: Route): void {
    const key = `${route.method} ${route.path}`;
    const list = this.byMethod.get(route.method) ?? [];
    if (list.some((c) => `${c.route.method} ${c.route.path}` === key)) throw new Error(`route registered twice: ${key}`);
    const paramNames: string[] = [];
    // Parameters may span slashes (image names do), as dockerd's {name:.*}; literal routes win
    // because routes with fewer parameters are tried first.
    const source = route.path.replace(/[.+?^$()[\]\\|]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
      paramNames.push(name);
      return '(.+)';
    });
    list.push({ route, pattern: new RegExp(`^${source}$`), paramNames });
    list.sort((a, b) => a.paramNames.length - b.paramNames.length);
    this.byMethod.set(route.method, list);
    this.operationIds.add(route.operationId);
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
