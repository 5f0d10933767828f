/**
 * A throwaway self-signed certificate for `receiver.test` (P-256, valid until 2126), used only by
 * deliver-webhook-request.test.ts to run a local HTTPS receiver. It protects nothing; it is not a secret.
 */
export const RECEIVER_TEST_KEY = `
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgkIVsemOmTBb2iqzu
Lyt14od5XyRk9g5kvevUauDYAaihRANCAATpP6wIQ0YQknhvAliwZEY3Ji5ccpVd
iT0O0Xkc+R58CWA+jFj29YqBOOBQ/1q9qZLbP+DeRlJRpxY0qRfWzgst
-----END PRIVATE KEY-----
`;

export const RECEIVER_TEST_CERT = `
-----BEGIN CERTIFICATE-----
MIIBojCCAUegAwIBAgIUMCBgmdMyXSj4AN71SIYoFgIrEcswCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNcmVjZWl2ZXIudGVzdDAgFw0yNjExMjIyMTMxMDZaGA8yMTI2
MTAyOTIxMzEwNlowGDEWMBQGA1UEAwwNcmVjZWl2ZXIudGVzdDBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABOk/rAhDRhCSeG8CWLBkRjcmLlxylV2JPQ7ReRz5HnwJ
YD6MWPb1ioE44FD/Wr2pkts/4N5GUlGnFjSpF9bOCy2jbTBrMB0GA1UdDgQWBBR5
667pKroaPzUxuM/HqzjquuavAzAfBgNVHSMEGDAWgBR5667pKroaPzUxuM/Hqzjq
uuavAzAPBgNVHRMBAf8EBTADAQH/MBgGA1UdEQQRMA+CDXJlY2VpdmVyLnRlc3Qw
CgYIKoZIzj0EAwIDSQAwRgIhAOAyPT6cTZUdin5mNE7q+P10dmzSaDXemyLFEDuq
UkCGAiEA2n3605F/OKtPg4ifGX9LNyrfUwgyziVdwKIMSsCgeGs=
-----END CERTIFICATE-----
`;
