// The test harness: main() only calls the trainer, defined in train.cu.
void run_training(int steps, int n);
int main() {
  const int n = 1 << 14;
  run_training(100, n);
  return 0;
}
