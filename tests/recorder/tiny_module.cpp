// A tiny shared library for the module-table-across-dlopen test.
extern "C" __attribute__((visibility("default"))) int stallscopeTinyModuleFunction(int x) {
    return x * 3 + 1;
}
