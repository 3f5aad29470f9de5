// What POST /auth, GET /distribution/{name}/json and GET /images/search need: a registry asked,
// with the request's credentials (the body's, or X-Registry-Auth undecoded; the image area reads them).
import type { DistributionInspect } from '../../../image/registry/registry-queries.js';

export interface DistributionBackend {
  login(body: unknown): Promise<{ Status: string; IdentityToken: string }>;
  inspect(name: string, registryAuth: string | undefined): Promise<DistributionInspect>;
  search(term: string, limit: number, registryAuth: string | undefined): Promise<Array<{ name: string; description: string; star_count: number; is_official: boolean; is_automated: boolean }>>;
}
