// Test helper: creates an empty store whose format version is one above
// this build's, as a newer streamglove would leave it.
//
//   make_future_store DIR
#include <cstdio>

#include "store/store.h"

int main(int argc, char** argv) {
  using namespace streamglove;
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_future_store DIR\n");
    return 2;
  }
  std::unique_ptr<Store> store;
  Status s = Store::Open(argv[1], size_t{64} << 20, /*create=*/true, &store);
  if (s.ok()) {
    StoreConfig config;
    config.format_version = kStoreFormatVersion + 1;
    s = store->Initialize(config, {{"word", 1}});
  }
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  return 0;
}
