import { describe, expect, it } from "@effect/vitest"
import { isIP } from "node:net"
import { ipFamily, isRefusedAddress } from "../src/webhooks/AddressPolicy.js"

// Core's pure parser replaced `net.isIP` and `BlockList` when the policy moved into core (D36, D47); these pin that
// it reads addresses as Node does and refuses the same ranges.
describe("AddressPolicy (D36, D47)", () => {
  it("recognises IP literals as net.isIP does", () => {
    const inputs = [
      "127.0.0.1",
      "255.255.255.255",
      "256.1.1.1",
      "1.2.3",
      "1.2.3.4.5",
      "01.2.3.4",
      "::",
      "::1",
      "fe80::1%eth0",
      "2001:db8::1",
      "::ffff:10.0.0.1",
      "1:2:3:4:5:6:7:8",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      "12345::",
      "example.com",
      "",
      ":",
      "::ffff:1.2.3",
      "1:2:3:4:5:6:1.2.3.4",
      "g::1"
    ]
    for (const input of inputs) expect([input, ipFamily(input)]).toEqual([input, isIP(input)])
  })

  // D50: one address from every entry of the IANA IPv4 and IPv6 special-purpose address registries, plus
  // multicast, 6to4/Teredo/NAT64/compatible forms and the unassigned IPv6 space outside 2000::/3. These are inputs
  // that must be refused; nothing connects to them.
  const ianaV4: ReadonlyArray<[string, string]> = [
    ["0.0.0.0/8 this network", "0.1.2.3"],
    ["0.0.0.0/32 this host", "0.0.0.0"],
    ["10.0.0.0/8 private", "10.1.2.3"],
    ["100.64.0.0/10 shared address space (carrier-grade NAT, cloud metadata)", "100.100.100.200"],
    ["127.0.0.0/8 loopback", "127.0.0.1"],
    ["169.254.0.0/16 link-local", "169.254.169.254"],
    ["172.16.0.0/12 private", "172.31.255.255"],
    ["192.0.0.0/24 IETF protocol assignments", "192.0.0.1"],
    ["192.0.0.0/29 IPv4 service continuity prefix", "192.0.0.5"],
    ["192.0.0.8/32 IPv4 dummy address", "192.0.0.8"],
    ["192.0.0.9/32 port control protocol anycast", "192.0.0.9"],
    ["192.0.0.10/32 TURN anycast", "192.0.0.10"],
    ["192.0.0.170/32 NAT64/DNS64 discovery", "192.0.0.170"],
    ["192.0.0.171/32 NAT64/DNS64 discovery", "192.0.0.171"],
    ["192.0.2.0/24 documentation (TEST-NET-1)", "192.0.2.10"],
    ["192.31.196.0/24 AS112-v4", "192.31.196.1"],
    ["192.52.193.0/24 AMT", "192.52.193.1"],
    ["192.88.99.0/24 deprecated 6to4 relay anycast", "192.88.99.1"],
    ["192.168.0.0/16 private", "192.168.1.1"],
    ["192.175.48.0/24 direct delegation AS112 service", "192.175.48.1"],
    ["198.18.0.0/15 benchmarking", "198.19.255.254"],
    ["198.51.100.0/24 documentation (TEST-NET-2)", "198.51.100.7"],
    ["203.0.113.0/24 documentation (TEST-NET-3)", "203.0.113.9"],
    ["224.0.0.0/4 multicast", "239.255.255.250"],
    ["240.0.0.0/4 reserved", "250.1.2.3"],
    ["255.255.255.255/32 limited broadcast", "255.255.255.255"]
  ]
  const ianaV6: ReadonlyArray<[string, string]> = [
    ["::1/128 loopback", "::1"],
    ["::/128 unspecified", "::"],
    ["::ffff:0:0/96 IPv4-mapped, of a private address", "::ffff:10.0.0.1"],
    ["::ffff:0:0/96 IPv4-mapped, hex form", "::ffff:a9fe:a9fe"],
    ["::ffff:0:0/96 IPv4-mapped, of a special address", "::ffff:100.64.0.1"],
    ["::/96 IPv4-compatible, of a private address", "::10.0.0.1"],
    ["::/96 IPv4-compatible (deprecated)", "::8.8.8.8"],
    ["64:ff9b::/96 NAT64 well-known prefix", "64:ff9b::808:808"],
    ["64:ff9b:1::/48 local-use NAT64", "64:ff9b:1::1"],
    ["100::/64 discard-only", "100::1"],
    ["2001::/23 IETF protocol assignments", "2001:1::1"],
    ["2001::/32 Teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
    ["2001:1::1/128 port control protocol anycast", "2001:1::1"],
    ["2001:1::2/128 TURN anycast", "2001:1::2"],
    ["2001:2::/48 benchmarking", "2001:2::1"],
    ["2001:3::/32 AMT", "2001:3::1"],
    ["2001:4:112::/48 AS112-v6", "2001:4:112::1"],
    ["2001:10::/28 deprecated ORCHID", "2001:10::1"],
    ["2001:20::/28 ORCHIDv2", "2001:20::1"],
    ["2001:30::/28 drone remote ID", "2001:30::1"],
    ["2001:db8::/32 documentation", "2001:db8::1"],
    ["2002::/16 6to4", "2002:c000:0204::1"],
    ["2620:4f:8000::/48 direct delegation AS112 service", "2620:4f:8000::1"],
    ["3fff::/20 documentation", "3fff:1::1"],
    ["5f00::/16 segment routing SIDs", "5f00::1"],
    ["fc00::/7 unique-local", "fd12:3456::1"],
    ["fe80::/10 link-local", "fe80::1%eth0"],
    ["fec0::/10 site-local (deprecated)", "fec0::1"],
    ["ff00::/8 multicast", "ff02::1"]
  ]

  it("refuses one address of every IANA special-purpose entry, IPv4 and IPv6 (D50)", () => {
    for (const [entry, address] of [...ianaV4, ...ianaV6]) {
      expect([entry, address, isRefusedAddress(address)]).toEqual([entry, address, true])
    }
  })

  it("allows global unicast, and an IPv4-mapped global address as the IPv4 address it is (D50)", () => {
    const allowed = [
      "8.8.8.8",
      "1.1.1.1",
      "172.15.255.255",
      "172.32.0.0",
      "100.63.255.255",
      "100.128.0.0",
      "198.17.255.255",
      "198.20.0.1",
      "223.255.255.254",
      "::ffff:8.8.8.8",
      "2606:4700:4700::1111",
      "2a00:1450:4001::200e"
    ]
    for (const address of allowed) expect([address, isRefusedAddress(address)]).toEqual([address, false])
    expect(isRefusedAddress("not an address")).toBe(true)
  })
})
