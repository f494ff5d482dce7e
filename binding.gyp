{
  "targets": [
    {
      "target_name": "tagmask",
      "sources": [
        "<!@(node -p \"require('fs').readdirSync('native/core').filter(f=>f.endsWith('.cpp')).map(f=>'native/core/'+f).join(' ')\")",
        "<!@(node -p \"require('fs').readdirSync('native/binding').filter(f=>f.endsWith('.cpp')).map(f=>'native/binding/'+f).join(' ')\")"
      ],
      "include_dirs": [
        "native/include",
        "<!(node -p \"require('node-addon-api').include_dir\")"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS", "TAGMASK_VERSION=\"<!(node -p \"require('./package.json').version\")\""],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc": ["-std=c++17", "-O3", "-Wall", "-Wextra", "-fexceptions", "<!@(node -p \"process.env.TAGMASK_WERROR === '1' ? '-Werror' : ''\")"],
      "ldflags": ["-pthread"]
    }
  ]
}
