#include "simcuda.h"
