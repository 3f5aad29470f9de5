// The Dockerfile of a build's context as dockerd reads it (builder/remotecontext readAndParseDockerfile):
// an empty file is refused, a parse error is named after the file.
import { DockerfileError } from './dockerfile-error.js';
import { parseDockerfile, type ParsedDockerfile } from './parse-dockerfile.js';

/** name: the dockerfile parameter of the build ('Dockerfile' when none). Throws DockerfileError. */
export function readDockerfile(name: string, content: Buffer): ParsedDockerfile {
  if (content.length === 0) throw new DockerfileError(`the Dockerfile (${name}) cannot be empty`);
  try {
    return parseDockerfile(content.toString('utf8'));
  } catch (err) {
    if (!(err instanceof DockerfileError)) throw err;
    throw new DockerfileError(`failed to parse ${name}: ${err.message}`);
  }
}
