// Host code with variables named min and max (CUDA Samples' EGLStream has these): another file's
// calls of min and max keep what convert writes for them.
double spread(const double *times, int count) {
  double min = times[0], max = times[0];
  for (int i = 1; i < count; ++i) {
    if (times[i] < min) min = times[i];
    if (times[i] > max) max = times[i];
  }
  return max - min;
}
