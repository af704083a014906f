from clusterplan.launch import main

main()
