// Image references ("busybox", "host:5000/a/b:tag@sha256:…") parsed and normalised as dockerd
// v20.10 does with its vendored docker/distribution/reference and opencontainers/go-digest v1.0.0:
// the same grammar, the same normalisation and the same messages, since clients read the text.
import { invalidParameter } from '../errors.js';

export interface ImageReference {
  /** "docker.io", "localhost", "host:5000"; empty only when Docker's grammar finds no domain ("a_b.c/d"). */
  domain: string;
  /** "library/busybox" */
  path: string;
  tag?: string;
  /** "sha256:<64 hex>" (sha384 and sha512 are valid too) */
  digest?: string;
}

const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_REPO_PREFIX = 'library/';
const DEFAULT_TAG = 'latest';
const NAME_TOTAL_LENGTH_MAX = 255;

// regexp.go. Its separator `(?:[._]|__|[-]*)` may be empty, which only joins two alphanumeric
// runs into one: `-+` accepts the same names without the exponential backtracking that an empty
// alternative inside a repetition costs a backtracking engine (Go's RE2 is linear). Go picks
// submatches as a backtracking engine would, so the captures below are Go's.
const pathComponent = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const remoteName = `${pathComponent}(?:/${pathComponent})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domain = `${domainComponent}(?:\\.${domainComponent})*(?::[0-9]+)?`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';

const REFERENCE = new RegExp(`^((?:${domain}/)?${remoteName})(?::(${tag}))?(?:@(${digest}))?$`);
const ANCHORED_NAME = new RegExp(`^(?:(${domain})/)?(${remoteName})$`);
const ANCHORED_TAG = new RegExp(`^${tag}$`);
const IDENTIFIER = /^[a-f0-9]{64}$/;

// go-digest: algorithms it can compute, with their hex length, and its own looser digest grammar
const DIGEST_HEX_LENGTH = new Map([['sha256', 64], ['sha384', 96], ['sha512', 128]]);
const GO_DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

// Image stores find images by any prefix of the ID's hex, with or without the algorithm (dockerd's
// image store Search through digestset.Lookup); nothing else can match an ID.
const ID_OR_PREFIX = /^(?:sha256:)?[a-f0-9]{1,64}$/;

/** A reference as the API takes it ("busybox", "localhost/x:1"), made canonical: ParseNormalizedNamed. */
export function parseNormalizedReference(s: string): ImageReference {
  if (IDENTIFIER.test(s)) {
    throw invalidParameter(`invalid repository name (${s}), cannot specify 64-byte hexadecimal strings`);
  }
  const [domainPart, remainder] = splitDockerDomain(s);
  const colon = remainder.indexOf(':');
  const remote = colon === -1 ? remainder : remainder.slice(0, colon);
  if (remote.toLowerCase() !== remote) {
    throw invalidParameter('invalid reference format: repository name must be lowercase');
  }
  return parse(`${domainPart}/${remainder}`);
}

/** Docker's TagNameOnly: a reference with neither tag nor digest gets the tag "latest". */
export function withDefaultTag(ref: ImageReference): ImageReference {
  return ref.tag === undefined && ref.digest === undefined ? { ...ref, tag: DEFAULT_TAG } : ref;
}

/** The reference store's favorDigest: "name:tag@digest" names the image of the digest, its tag ignored (how a swarm service's pinned image reads). */
export function favorDigest(ref: ImageReference): ImageReference {
  return ref.tag !== undefined && ref.digest !== undefined ? { domain: ref.domain, path: ref.path, digest: ref.digest } : ref;
}

/** The full string: "docker.io/library/busybox:latest", "host:5000/a@sha256:…". */
export function formatReference(ref: ImageReference): string {
  return withSuffixes(nameOf(ref.domain, ref.path), ref);
}

/** Docker's FamiliarName: "busybox", "user/app", "host:5000/a". */
export function familiarName(ref: ImageReference): string {
  if (ref.domain !== DEFAULT_DOMAIN) return nameOf(ref.domain, ref.path);
  // v20.10 trims the prefix even from nested paths ("library/a/b" → "a/b"); later versions do not
  return ref.path.startsWith(OFFICIAL_REPO_PREFIX) ? ref.path.slice(OFFICIAL_REPO_PREFIX.length) : ref.path;
}

/** Docker's FamiliarString: "busybox:latest", as in "No such image: busybox:latest". */
export function familiarString(ref: ImageReference): string {
  return withSuffixes(familiarName(ref), ref);
}

/** A tag given on its own (POST /images/{name}/tag, ?tag= of a pull): Docker's WithTag check. */
export function validateTag(t: string): void {
  if (!ANCHORED_TAG.test(t)) throw invalidParameter('invalid tag format');
}

/**
 * Whether `s` could name an image by ID: "sha256:<hex>" or bare hex, 1 to 64 digits. dockerd tries
 * a name first and an ID prefix second, because short hex strings ("abc", "cafe") are valid names
 * too; only a full 64-digit ID, bare or with "sha256:", is looked up by ID alone (ParseAnyReference).
 */
/** The name POST /images/{name}/tag and a commit give an image: repo with tag (latest by default); 400 for one dockerd refuses. */
export function tagReference(repo: string, tag: string): ImageReference {
  if (tag !== '') validateTag(tag);
  const parsed = parseNormalizedReference(repo);
  if (parsed.tag !== undefined || parsed.digest !== undefined) {
    if (tag !== '' || parsed.digest !== undefined) throw invalidParameter('refusing to create an ambiguous tag using digest algorithm as name');
  }
  return withDefaultTag({ ...parsed, tag: parsed.tag ?? (tag || undefined) });
}

/** The name an import gives an image: the tag added unless the repo holds a digest; latest by default. */
export function taggedReference(repo: string, tag: string): ImageReference {
  const parsed = parseNormalizedReference(repo);
  if (tag !== '') validateTag(tag);
  return withDefaultTag(tag !== '' && parsed.digest === undefined ? { ...parsed, tag } : parsed);
}

export function isImageIdLike(s: string): boolean {
  return ID_OR_PREFIX.test(s);
}

/** Whether the name an image was found by is its ID or an ID prefix (not a name that looks like hex). */
export function isIdReference(refOrId: string, id: string): boolean {
  const hex = refOrId.startsWith('sha256:') ? refOrId.slice(7) : refOrId;
  return /^[0-9a-f]+$/.test(hex) && id.slice(7).startsWith(hex);
}

/** The full repository name of a stored reference, without its tag or digest. */
export function repositoryOf(ref: string): string {
  const { domain, path } = parseNormalizedReference(ref);
  return formatReference({ domain, path });
}

// splitDockerDomain: the first component is a domain only if it has a "." or ":" or is "localhost"
function splitDockerDomain(name: string): [string, string] {
  const slash = name.indexOf('/');
  let domainPart = DEFAULT_DOMAIN;
  let remainder = name;
  if (slash !== -1) {
    const first = name.slice(0, slash);
    if (/[.:]/.test(first) || first === 'localhost') {
      domainPart = first === LEGACY_DEFAULT_DOMAIN ? DEFAULT_DOMAIN : first;
      remainder = name.slice(slash + 1);
    }
  }
  if (domainPart === DEFAULT_DOMAIN && !remainder.includes('/')) remainder = OFFICIAL_REPO_PREFIX + remainder;
  return [domainPart, remainder];
}

// reference.Parse; the name is never empty here, as the caller always puts a domain in front
function parse(s: string): ImageReference {
  const m = REFERENCE.exec(s);
  if (m === null) {
    throw invalidParameter(REFERENCE.test(s.toLowerCase()) ? 'repository name must be lowercase' : 'invalid reference format');
  }
  const [, name, t, d] = m;
  if (name.length > NAME_TOTAL_LENGTH_MAX) {
    throw invalidParameter(`repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`);
  }
  // REFERENCE only matches names that ANCHORED_NAME matches
  const [, domainPart = '', path] = ANCHORED_NAME.exec(name) ?? [];
  if (d !== undefined) validateDigest(d);
  return { domain: domainPart, path, ...(t !== undefined && { tag: t }), ...(d !== undefined && { digest: d }) };
}

// go-digest v1.0.0 Digest.Validate; the reference grammar has already required "alg:" and 32+ hex digits
function validateDigest(d: string): void {
  const colon = d.indexOf(':');
  const hexLength = DIGEST_HEX_LENGTH.get(d.slice(0, colon));
  const encoded = d.slice(colon + 1);
  if (hexLength === undefined) {
    throw invalidParameter(GO_DIGEST.test(d) ? 'unsupported digest algorithm' : 'invalid checksum digest format');
  }
  if (encoded.length !== hexLength) throw invalidParameter('invalid checksum digest length');
  if (!/^[a-f0-9]+$/.test(encoded)) throw invalidParameter('invalid checksum digest format');
}

function nameOf(domainPart: string, path: string): string {
  return domainPart === '' ? path : `${domainPart}/${path}`;
}

function withSuffixes(name: string, ref: ImageReference): string {
  return name + (ref.tag === undefined ? '' : `:${ref.tag}`) + (ref.digest === undefined ? '' : `@${ref.digest}`);
}
