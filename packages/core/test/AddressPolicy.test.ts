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

  it("refuses loopback, private, link-local, unique-local, unspecified and mapped forms of them", () => {
    const refused = [
      "0.0.0.0",
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.0",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "::",
      "::1",
      "fe80::1",
      "febf::1",
      "fc00::1",
      "fdff::1",
      "::ffff:127.0.0.1",
      "::ffff:a9fe:a9fe",
      "not an address"
    ]
    const allowed = [
      "8.8.8.8",
      "172.15.255.255",
      "172.32.0.0",
      "169.255.0.1",
      "2001:db8::1",
      "fe00::1",
      "::ffff:8.8.8.8"
    ]
    for (const address of refused) expect([address, isRefusedAddress(address)]).toEqual([address, true])
    for (const address of allowed) expect([address, isRefusedAddress(address)]).toEqual([address, false])
  })
})
