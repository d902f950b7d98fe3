from harness.dashboard import main

main()
