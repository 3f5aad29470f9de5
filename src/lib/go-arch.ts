// Node's process.arch in Go's GOARCH spelling, which Docker clients and image configs use.
const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };

export function goArch(arch: string = process.arch): string {
  return GO_ARCH[arch] ?? arch;
}
