#include "../src/trainer.cu"
int main() {
  Trainer t;
  t.load();
  t.fit(10);
  return 0;
}
