// What a real dockerd 20.10 showed of its swarm (GET /swarm), for the tests of the CA and the
// tokens: swarmkit's own root CA, the worker token it made from it, and the TLSInfo it derived.

/** TLSInfo.TrustRoot, with its trailing newline as the API returns it. */
export const TRUST_ROOT = `-----BEGIN CERTIFICATE-----
MIIBajCCARCgAwIBAgIUYQIqxuVDjhVJA131JQnkiatwM9swCgYIKoZIzj0EAwIw
EzERMA8GA1UEAxMIc3dhcm0tY2EwHhcNMjYxMTI2MDc0MjAwWhcNNDYxMTIxMDc0
MjAwWjATMREwDwYDVQQDEwhzd2FybS1jYTBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABG6vaIs7i07FyNX2SFIrMoCrWQlDRIlh+uT5FJU71attYgml5EeRvqIVUoNz
ysfEg+LfDc8cgl0JfUeuFCUMZOijQjBAMA4GA1UdDwEB/wQEAwIBBjAPBgNVHRMB
Af8EBTADAQH/MB0GA1UdDgQWBBQ20PZ4bgOobk/f4pFZ0shAOQIvFjAKBggqhkjO
PQQDAgNIADBFAiAmuWwH07aliITA4d1hc4HZP4X1hsPjzJ5tiwf5IZ1UsAIhANe3
7tEDPqKHPjeySyuFVgjO2di31oORV6e7mXsWgNa+
-----END CERTIFICATE-----
`;

/** JoinTokens.Worker */
export const WORKER_TOKEN = 'SWMTKN-1-6993ax97o6f2jwutt1q84zllcu5wfe3bha2wy8vju1ofzx70br-1w6a2qemwpey8jnfolgbaw3re';

/** TLSInfo.CertIssuerSubject: the root CA's subject as DER (CN=swarm-ca, a PrintableString as Go writes it), base64 */
export const CERT_ISSUER_SUBJECT = 'MBMxETAPBgNVBAMTCHN3YXJtLWNh';

/** TLSInfo.CertIssuerPublicKey: its SubjectPublicKeyInfo as DER, base64 */
export const CERT_ISSUER_PUBLIC_KEY = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEbq9oizuLTsXI1fZIUisygKtZCUNEiWH65PkUlTvVq21iCaXkR5G+ohVSg3PKx8SD4t8NzxyCXQl9R64UJQxk6A==';
