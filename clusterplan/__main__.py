from clusterplan.cli import main

main()
