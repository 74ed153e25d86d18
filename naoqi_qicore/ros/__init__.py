"""ros layer of naoqi_qicore."""
