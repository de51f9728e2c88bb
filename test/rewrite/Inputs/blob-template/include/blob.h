// A buffer class template allocating lazily, on the first gpu() call.
#pragma once
template <class T>
class Blob {
 public:
  explicit Blob(int n) : n_(n) {}
  T *gpu() {
    if (d_ptr_ == nullptr) cudaMalloc((void **)&d_ptr_, n_ * sizeof(T));
    return d_ptr_;
  }
  int count() const { return n_; }
 private:
  int n_;
  T *d_ptr_ = nullptr;
};
