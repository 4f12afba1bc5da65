// Probe traffic for scripts/bench-optimize: COUNT Ethernet frames, UDP or
// TCP SYN, each from the next source address of a range no rule names,
// written to IFACE with sendmmsg (AF_PACKET) in batches; prints the wall
// time. Run it only in a namespace of the benchmark's own, on a veth whose
// other end is in another of them.
//   flood IFACE DSTMAC 4|6 DST COUNT udp|tcp PORT
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

uint32_t sum16(const uint8_t *p, size_t n, uint32_t s = 0) {
  for (size_t i = 0; i + 1 < n; i += 2)
    s += (p[i] << 8) | p[i + 1];
  if (n & 1)
    s += p[n - 1] << 8;
  return s;
}
uint16_t fold(uint32_t s) {
  while (s >> 16)
    s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(~s);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: flood IFACE DSTMAC 4|6 DST COUNT udp|tcp PORT\n");
    return 2;
  }
  const bool v6 = argv[3][0] == '6';
  const long count = atol(argv[5]);
  const bool tcp = strcmp(argv[6], "tcp") == 0;
  const uint16_t port = static_cast<uint16_t>(atoi(argv[7]));
  uint8_t mac[6];
  sscanf(argv[2], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2],
         &mac[3], &mac[4], &mac[5]);
  uint8_t dst[16] = {}, src[16] = {};
  inet_pton(v6 ? AF_INET6 : AF_INET, argv[4], dst);
  // Sources: 172.16.0.0/12 or 2001:db8:ffff::/48, which no rule names.
  inet_pton(v6 ? AF_INET6 : AF_INET, v6 ? "2001:db8:ffff::" : "172.16.0.0",
            src);
  const int fd = socket(AF_PACKET, SOCK_RAW, 0);
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_ifindex = static_cast<int>(if_nametoindex(argv[1]));
  to.sll_halen = 6;
  memcpy(to.sll_addr, mac, 6);
  if (fd < 0 || to.sll_ifindex == 0) {
    perror("flood");
    return 1;
  }
  const size_t l4 = tcp ? 20 : 8, ip = v6 ? 40 : 20;
  const size_t len = 14 + ip + l4;
  constexpr int kBatch = 256;
  std::vector<uint8_t> frames(kBatch * len);
  std::vector<iovec> iov(kBatch);
  std::vector<mmsghdr> msgs(kBatch);
  auto build = [&](uint8_t *f, uint32_t n) {
    memset(f, 0, len);
    memcpy(f, mac, 6);
    f[6] = 0x02, f[11] = 0x01;
    f[12] = v6 ? 0x86 : 0x08, f[13] = v6 ? 0xdd : 0x00;
    uint8_t *h = f + 14, *t = h + ip;
    uint8_t s[16];
    memcpy(s, src, 16);
    const int last = v6 ? 15 : 3;
    s[last] = n & 0xff, s[last - 1] = (n >> 8) & 0xff;
    s[last - 2] = static_cast<uint8_t>(s[last - 2] | ((n >> 16) & 0x0f));
    const uint8_t proto = tcp ? 6 : 17;
    if (v6) {
      h[0] = 0x60, h[4] = 0, h[5] = static_cast<uint8_t>(l4), h[6] = proto,
      h[7] = 64;
      memcpy(h + 8, s, 16), memcpy(h + 24, dst, 16);
    } else {
      h[0] = 0x45, h[3] = static_cast<uint8_t>(ip + l4), h[8] = 64,
      h[9] = proto;
      memcpy(h + 12, s, 4), memcpy(h + 16, dst, 4);
      const uint16_t c = fold(sum16(h, 20));
      h[10] = c >> 8, h[11] = c & 0xff;
    }
    t[0] = 0x9c, t[1] = 0x40; // source port 40000
    t[2] = port >> 8, t[3] = port & 0xff;
    if (tcp) {
      t[12] = 5 << 4, t[13] = 0x02, t[14] = 0xff, t[15] = 0xff;
    } else {
      t[5] = static_cast<uint8_t>(l4);
    }
    const size_t alen = v6 ? 16 : 4;
    uint32_t ps = sum16(s, alen);
    ps = sum16(dst, alen, ps);
    ps += proto + static_cast<uint32_t>(l4);
    const uint16_t c = fold(sum16(t, l4, ps));
    const size_t at = tcp ? 16 : 6;
    t[at] = c >> 8, t[at + 1] = c & 0xff;
  };
  const auto start = std::chrono::steady_clock::now();
  for (long sent = 0; sent < count;) {
    const int n = static_cast<int>(std::min<long>(kBatch, count - sent));
    for (int i = 0; i < n; ++i) {
      build(frames.data() + i * len, static_cast<uint32_t>(sent + i));
      iov[i] = {frames.data() + i * len, len};
      msgs[i] = {};
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
      msgs[i].msg_hdr.msg_name = &to;
      msgs[i].msg_hdr.msg_namelen = sizeof(to);
    }
    const int done = sendmmsg(fd, msgs.data(), static_cast<unsigned>(n), 0);
    if (done <= 0) {
      perror("sendmmsg");
      return 1;
    }
    sent += done;
  }
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  printf("%.6f\n", s);
  return 0;
}
