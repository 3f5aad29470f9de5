// POST /commit: 201 {"Id"}. `pause` is true unless the query sets it, as dockerd from API 1.13; the
// body, a container config, may be empty.
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ImageCommitBackend } from './commit-backend.js';

export function imageCommit(backend: ImageCommitBackend): Handler {
  return async (ctx) => {
    const q = ctx.query;
    const config = await ctx.readJson();
    const id = await backend.commit({
      container: q.get('container') ?? '',
      repo: q.get('repo') ?? '',
      tag: q.get('tag') ?? '',
      comment: q.get('comment') ?? '',
      author: q.get('author') ?? '',
      pause: (q.get('pause') ?? '') === '' || queryBool(q, 'pause'),
      changes: q.getAll('changes'),
      config,
    });
    ctx.json({ Id: id }, 201);
  };
}
