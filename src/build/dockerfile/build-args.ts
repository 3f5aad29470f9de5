// The build args dockerd takes without an ARG for them (moby v20.10 builder/dockerfile/buildargs.go):
// the proxy variables. They reach RUN's environment, are kept out of the image's history unless
// the Dockerfile declares them, and are never reported as unconsumed.
//
// The classic builder has no automatic platform args: TARGETPLATFORM, TARGETOS, TARGETARCH,
// TARGETVARIANT, BUILDPLATFORM and the like come from BuildKit's frontend only, so under
// DOCKER_BUILDKIT=0 `ARG TARGETPLATFORM` is empty unless given with --build-arg.
export const BUILTIN_BUILD_ARGS: ReadonlySet<string> = new Set([
  'HTTP_PROXY',
  'http_proxy',
  'HTTPS_PROXY',
  'https_proxy',
  'FTP_PROXY',
  'ftp_proxy',
  'NO_PROXY',
  'no_proxy',
]);
