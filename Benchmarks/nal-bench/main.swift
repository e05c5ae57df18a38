print("nal-bench")
